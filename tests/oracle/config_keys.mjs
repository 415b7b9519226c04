// The keys of XState v5's config types, read by the TypeScript compiler from the installed
// xstate package's declarations (tests/oracle/node_modules/xstate), as JSON:
// {machine: [...], createMachine: [...], stateNode: [...], transition: [...], invoke: [...]}.
//
// Usage: node tests/oracle/config_keys.mjs   (TypeScript from tests/oracle/extract/node_modules)
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ts = createRequire(join(here, 'extract', 'package.json'))('typescript');

// A file beside node_modules/xstate, so that 'xstate' resolves to the installed package.
const probe = join(here, '__config_keys_probe.ts');
const text = `
import type { MachineConfig, StateNodeConfig, TransitionConfig, InvokeConfig, createMachine } from 'xstate';
type Any = any;
export type MachineKeys = MachineConfig<Any, Any>;
export type CreateMachineKeys = Parameters<typeof createMachine>[0];
export type StateNodeKeys = StateNodeConfig<Any, Any, Any, Any, Any, Any, Any, Any, Any, Any, Any>;
export type TransitionKeys = TransitionConfig<Any, Any, Any, Any, Any, Any, Any, Any, Any>;
export type InvokeKeys = InvokeConfig<Any, Any, Any, Any, Any, Any, Any, Any>;
`;
const options = { strict: true, noEmit: true, moduleResolution: ts.ModuleResolutionKind.Node10, skipLibCheck: true };
const host = ts.createCompilerHost(options);
const readFile = host.readFile.bind(host);
const fileExists = host.fileExists.bind(host);
const getSourceFile = host.getSourceFile.bind(host);
host.readFile = (name) => (name === probe ? text : readFile(name));
host.fileExists = (name) => name === probe || fileExists(name);
host.getSourceFile = (name, version, ...rest) =>
  name === probe ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, ...rest);
const program = ts.createProgram([probe], options, host);
const checker = program.getTypeChecker();
const source = program.getSourceFile(probe);
const unresolved = ts.getPreEmitDiagnostics(program).filter((d) => d.file === source);
if (unresolved.length > 0) {
  throw new Error(unresolved.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
}
const keysOf = (name) => {
  const alias = source.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  const type = checker.getTypeAtLocation(alias.name);
  // A union (InvokeConfig's branches) gives the keys of any member.
  const members = type.isUnion() ? type.types : [type];
  const names = new Set();
  for (const member of members) for (const symbol of checker.getPropertiesOfType(member)) names.add(symbol.getName());
  return [...names].sort();
};
process.stdout.write(`${JSON.stringify({
  machine: keysOf('MachineKeys'),
  createMachine: keysOf('CreateMachineKeys'),
  stateNode: keysOf('StateNodeKeys'),
  transition: keysOf('TransitionKeys'),
  invoke: keysOf('InvokeKeys'),
})}\n`);
