import { createMachine } from 'xstate';

export const modalMachine = createMachine({
  id: 'modal',
  initial: 'closed',
  states: { closed: { on: { OPEN: 'open' } }, open: { on: { CLOSE: 'closed' } } },
});

export function Modal() {
  return <div className="modal">modal</div>;
}
