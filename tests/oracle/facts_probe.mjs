import { setup, createMachine, initialTransition, transition, assign, raise, sendTo, sendParent, emit, log, cancel, spawnChild, stopChild, enqueueActions, fromPromise } from 'xstate';
const rep = (k, v) => (v && typeof v === 'object' && v.sessionId) ? `<actor ${v.id}>` : v;
const show = (label, [snap, actions]) => {
  console.log('## ' + label);
  console.log(' value', JSON.stringify(snap.value), 'status', snap.status, 'ctx', JSON.stringify(snap.context), 'error', snap.error && String(snap.error));
  console.log(' children', JSON.stringify(Object.fromEntries(Object.entries(snap.children).map(([k, v]) => [k, {id: v.id, src: v.src, snapStatus: v.getSnapshot?.().status}]))));
  for (const a of actions) console.log('  action', JSON.stringify({type: a.type, params: a.params}, rep));
};
const fetcher = fromPromise(async () => 1);
const S = setup({ actors: { fetcher }, actions: { named: () => {} }, delays: { short: 100 } });
const run = (label, entry, events = [], extra = {}) => {
  const m = S.createMachine({ id: 'm', initial: 'a', context: { n: 0 }, states: { a: { entry, on: { GO: 'b' }, ...extra }, b: {} } });
  try {
    let r = initialTransition(m); show(label + ' / init', r);
    for (const e of events) { r = transition(m, r[0], e); show(label + ' / ' + e.type, r); }
  } catch (e) { console.log(label, 'THROWS', e.message); }
};
run('assign', [assign({ n: 1 })]);
run('raise', [raise({ type: 'R' })]);
run('raise delay', [raise({ type: 'RD' }, { delay: 100, id: 'rd' }), raise({ type: 'RN' }, { delay: 'short' })]);
run('sendTo missing', [sendTo('nobody', { type: 'X' })]);
run('sendTo child', [spawnChild('fetcher', { id: 'kid' }), sendTo('kid', { type: 'X' }), sendTo('kid', { type: 'X' }, {delay: 10, id: 'sx'})]);
run('sendParent', [sendParent({ type: 'P' })]);
run('emit', [emit({ type: 'EM', x: 1 })]);
run('log', [log('hello', 'lbl'), log()]);
run('cancel', [cancel('rd')]);
run('spawnChild', [spawnChild('fetcher', { id: 'sp', input: { q: 1 } }), spawnChild('fetcher')], [{type:'GO'}]);
run('stopChild', [spawnChild('fetcher', { id: 'sp' }), stopChild('sp')]);
run('stopChild later', [spawnChild('fetcher', { id: 'sp' })], [{type:'KILL'}], { on: { GO: 'b', KILL: { actions: stopChild('sp') } } });
run('named', ['named', { type: 'named', params: { k: 1 } }, 'unknownAction']);
run('enqueue', [enqueueActions(({ enqueue, check }) => { enqueue.assign({ n: 2 }); enqueue.raise({ type: 'Q' }); if (check(() => true)) enqueue('named'); enqueue({ type: 'named', params: { z: 1 } }); enqueue.emit({ type: 'E2' }); })]);
run('invoke', [], [{type: 'GO'}], { invoke: [{ src: 'fetcher' }, { src: 'fetcher', id: 'inv2', input: { a: 1 } }] });
run('invoke done', [], [{type: 'xstate.done.actor.inv2', output: 5}], { invoke: [{ src: 'fetcher', id: 'inv2', onDone: 'b' }] });
run('after', [], [{type: 'xstate.after.1000.m.a'}], { after: { 1000: 'b', short: 'b' } });
// done machine
const d = createMachine({ initial: 'a', states: { a: { on: { F: 'f' } }, f: { type: 'final' } }, output: { ok: 1 } });
const d0 = initialTransition(d); const d1 = transition(d, d0[0], { type: 'F' }); show('done', d1);
console.log(' output', JSON.stringify(d1[0].output));
try { show('afterDone', transition(d, d1[0], { type: 'F' })); } catch (e) { console.log('afterDone throws', e.message); }
