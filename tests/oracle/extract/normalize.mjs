// Code text normalised for comparison: TypeScript transpiled to JavaScript, whitespace removed.
//
// statekit keeps a function's source as written (TypeScript included); XState's `fn.toString()`
// gives the text node ran, i.e. the transpiled JavaScript. Sending both through the same
// transpilation makes them comparable: types vanish, the code itself must match.
import ts from 'typescript';

export const COMPILER_OPTIONS = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  jsx: ts.JsxEmit.React,
  esModuleInterop: false,
  removeComments: true,
};

function parsesAsExpression(code) {
  const file = ts.createSourceFile('x.ts', `(${code});`, ts.ScriptTarget.ES2022, false);
  return file.parseDiagnostics.length === 0;
}

const cache = new Map();

export function normalizeCode(code) {
  if (cache.has(code)) return cache.get(code);
  // A method (`entry() {...}`) is only valid inside an object literal.
  const wrapped = parsesAsExpression(code) ? `(${code});` : `({${code}});`;
  const out = ts.transpileModule(wrapped, { compilerOptions: COMPILER_OPTIONS, fileName: 'x.ts' }).outputText;
  const result = out.replace(/"use strict";/g, '').replace(/\s+/g, '').replace(/;+$/, '');
  cache.set(code, result);
  return result;
}

// `node normalize.mjs` reads a JSON list of code strings on stdin and prints their normal forms.
if (import.meta.url === `file://${process.argv[1]}`) {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (input += chunk));
  process.stdin.on('end', () => {
    process.stdout.write(JSON.stringify(JSON.parse(input).map(normalizeCode)));
  });
}
