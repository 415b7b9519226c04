import { createMachine } from 'xstate';

const logEntry = ({ context }: { context: unknown }) => console.log('entered', context);
function isReady({ context }: { context: { ready: boolean } }) {
  return context.ready;
}
const handlers = {
  onStart: () => console.log('start'),
  onStop() {
    console.log('stop');
  },
};

export const engine = createMachine({
  id: 'engine',
  initial: 'off',
  context: { ready: true },
  states: {
    off: { entry: logEntry, on: { START: { target: 'on', guard: isReady, actions: handlers.onStart } } },
    on: { exit: [handlers.onStop, logEntry], on: { STOP: 'off' } },
  },
});
