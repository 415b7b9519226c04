import { createMachine, assign } from 'xstate';

export const makeTimer = () => {
  const TICK = 100;
  const ticking = {
    after: { [TICK]: { target: 'ticking', reenter: true, actions: assign({ elapsed: ({ context }: any) => context.elapsed + TICK }) } },
    on: { STOP: 'stopped' },
  };
  return createMachine({
    id: 'timer',
    initial: 'ticking',
    context: { elapsed: 0 },
    states: { ticking, stopped: { on: { START: 'ticking' } } },
  });
};

export const timer = makeTimer();
