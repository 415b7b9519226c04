// A feature machine that emits events with params, and a parent that spawns it through the
// setup() helpers and talks to it by id (the parent/child pattern of XState v5 apps).
import { emit, setup, assign, type ActorRefFrom } from 'xstate';

export const uploaderMachine = setup({
  types: {
    emitted: {} as { type: 'uploaded'; bytes: number },
    events: {} as { type: 'upload'; bytes: number } | { type: 'reset' },
    context: {} as { total: number },
  },
  actions: {
    announce: emit((_, params: { bytes: number }) => ({ type: 'uploaded' as const, bytes: params.bytes })),
    addBytes: assign({ total: ({ context }, params: { bytes: number }) => context.total + params.bytes }),
  },
}).createMachine({
  id: 'uploader',
  context: { total: 0 },
  initial: 'ready',
  states: {
    ready: {
      on: {
        upload: {
          actions: [
            { type: 'addBytes', params: ({ event }) => ({ bytes: event.bytes }) },
            { type: 'announce', params: ({ event }) => ({ bytes: event.bytes }) },
          ],
        },
        reset: { actions: assign({ total: 0 }) },
      },
    },
  },
});

const workspace = setup({
  types: {} as {
    context: { uploads: number; child: ActorRefFrom<typeof uploaderMachine> | null };
    events: { type: 'open' } | { type: 'send'; bytes: number } | { type: 'close' } | { type: 'uploaded'; bytes: number };
  },
  actors: { uploader: uploaderMachine },
});

const openUploader = workspace.spawnChild('uploader', { id: 'uploader', syncSnapshot: true });
const forwardBytes = workspace.sendTo('uploader', ({ event }) => ({
  type: 'upload' as const,
  bytes: event.type === 'send' ? event.bytes : 0,
}));
const closeUploader = workspace.stopChild('uploader');
const countUpload = workspace.assign({ uploads: ({ context }) => context.uploads + 1 });
const auditClose = workspace.enqueueActions(({ context, enqueue }) => {
  if (context.uploads > 0) {
    enqueue.emit({ type: 'audit', uploads: context.uploads });
  }
  enqueue(closeUploader);
});

export const workspaceMachine = workspace.createMachine({
  id: 'workspace',
  context: { uploads: 0, child: null },
  initial: 'closed',
  states: {
    closed: { on: { open: { target: 'open', actions: openUploader } } },
    open: {
      on: {
        send: { actions: forwardBytes },
        uploaded: { actions: [countUpload, workspace.log(({ event }) => `uploaded ${event.type}`)] },
        close: { target: 'closed', actions: auditClose },
      },
    },
  },
});
