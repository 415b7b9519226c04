// events: [{"type": "GO"}, {"type": "BUMP"}]
import { createMachine, assign, raise } from 'xstate';

// Action factories as class methods (an SDK's pattern): `this.raiseAndAssign()` builds the
// actions when the machine is made; XState runs what they return.
class Sdk {
  static bumpBy(amount) {
    return assign({ n: ({ context }) => context.n + amount });
  }

  marker = () => assign({ marked: true });

  raiseAndAssign() {
    return [raise({ type: 'NEXT' }), assign({ n: 1 })];
  }

  build() {
    return createMachine({
      initial: 'a',
      context: { n: 0, marked: false },
      states: {
        a: { on: { GO: { target: 'b', actions: this.raiseAndAssign() } } },
        b: { entry: this.marker(), on: { NEXT: 'c' } },
        c: { on: { BUMP: { actions: Sdk.bumpBy(5) } } },
      },
    });
  }
}

const machine = new Sdk().build();
