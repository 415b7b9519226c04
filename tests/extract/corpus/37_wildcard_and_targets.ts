import { createMachine } from 'xstate';

export const router = createMachine({
  id: 'router',
  initial: 'home',
  states: {
    home: {},
    about: {},
    user: { initial: 'profile', states: { profile: {}, settings: {} } },
  },
  on: {
    'nav.home': '.home',
    'nav.about': { target: '.about' },
    'nav.settings': { target: ['.user.settings'] },
    '*': { actions: 'logUnknown' },
    RESET: { target: '#router.home', reenter: true },
  },
});
