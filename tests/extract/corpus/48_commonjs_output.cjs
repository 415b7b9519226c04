"use strict";
// The shape TypeScript's CommonJS output gives a setup() machine in a published package:
// imports as `require`, calls of imports as `(0, module_1.name)(...)`.
Object.defineProperty(exports, "__esModule", { value: true });
exports.uploadMachine = void 0;
const xstate_1 = require("xstate");
const { fromPromise, and } = require("xstate");
const MAX_RETRIES = 2;
const retryWith = (delay) => (0, xstate_1.raise)({ type: 'RETRY' }, { delay, id: 'retry' });
exports.uploadMachine = (0, xstate_1.setup)({
    actors: {
        upload: fromPromise(async ({ input }) => input.file),
    },
    guards: {
        canRetry: ({ context }) => context.retries < MAX_RETRIES,
        hasFile: ({ context }) => context.file !== null,
        retryable: and(['canRetry', 'hasFile']),
    },
    actions: {
        countRetry: (0, xstate_1.assign)({ retries: ({ context }) => context.retries + 1 }),
    },
}).createMachine({
    id: 'upload',
    context: { file: null, retries: 0 },
    initial: 'idle',
    states: {
        idle: {
            on: {
                PICK: { actions: (0, xstate_1.assign)({ file: ({ event }) => event.file }) },
                START: { guard: 'hasFile', target: 'uploading' },
            },
        },
        uploading: {
            invoke: {
                src: 'upload',
                input: ({ context }) => ({ file: context.file }),
                onDone: 'done',
                onError: [
                    { guard: 'retryable', target: 'waiting', actions: ['countRetry', retryWith(500)] },
                    { target: 'failed' },
                ],
            },
        },
        waiting: {
            exit: (0, xstate_1.cancel)('retry'),
            on: { RETRY: 'uploading', CANCEL: 'idle' },
        },
        done: { type: 'final' },
        failed: { entry: (0, xstate_1.log)('upload failed') },
    },
});
