"""The SCXML interpreter beyond the W3C suite: the sandbox, file access, the clock, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from statekit.scxml import DocumentError, ScxmlRunError, ScxmlSystem, Session

HEAD = '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" datamodel="ecmascript"'


def _run(body: str, *, base_dir: Path | None = None, attrs: str = "") -> tuple[ScxmlSystem, Session]:
    system = ScxmlSystem(base_dir=base_dir, record_steps=True)
    session = system.start(f"{HEAD} {attrs}>{body}</scxml>")
    return system, session


def _errors(session: Session) -> list[str]:
    return [str(value) for label, value in session.logs if label == "error"]


LOG_ERROR = '<transition event="error.execution" target="done"><log label="error" expr="_event.data.message"/></transition>'


def test_expressions_run_in_javascript_not_python() -> None:
    _, session = _run(f'''
      <state id="s"><onentry><log label="x" expr="__import__('os').getcwd()"/></onentry>{LOG_ERROR}</state>
      <final id="done"/>''')
    assert session.final == "done"
    assert "__import__ is not defined" in _errors(session)[0]


def test_system_variables_are_read_only_and_functions_persist() -> None:
    _, session = _run('''
      <script>function twice(x) { return 2 * x; }</script>
      <state id="s">
        <onentry><assign location="_sessionid" expr="'x'"/></onentry>
        <transition event="error.execution" cond="twice(21) === 42 &amp;&amp; typeof _sessionid === 'string'
            &amp;&amp; typeof nothing === 'undefined'" target="done"/>
      </state>
      <final id="done"/>''')
    assert session.final == "done"


def test_documents_cannot_call_the_interpreters_helpers() -> None:
    _, session = _run(f'''
      <state id="s"><onentry><script>__statekit("start", '{{"sessionid": "forged"}}')</script></onentry>
        {LOG_ERROR}</state>
      <final id="done"><onentry><log label="id" expr="_sessionid"/></onentry></final>''')
    assert "__statekit is the interpreter's" in _errors(session)[0]
    assert session.logs[-1] == ("id", session.sessionid)


def test_a_script_that_never_ends_stops_the_session() -> None:
    _, session = _run('<state id="s"><onentry><script>while (true) {}</script></onentry></state>')
    assert session.running is False
    assert "time limit" in (session.error or "")


def test_an_eventless_loop_stops_the_session() -> None:
    _, session = _run('<state id="a"><transition target="b"/></state><state id="b"><transition target="a"/></state>')
    assert session.running is False
    assert "microsteps" in (session.error or "")


def test_file_sources_are_refused_without_a_base_directory(tmp_path: Path) -> None:
    (tmp_path / "value.txt").write_text("41")
    body = f'''<datamodel><data id="v" src="file:value.txt"/></datamodel>
      <state id="s"><transition cond="v === 41" target="done"/>{LOG_ERROR}</state><final id="done"/>'''
    _, refused = _run(body)
    assert "base directory" in _errors(refused)[0]
    system = ScxmlSystem(base_dir=tmp_path)
    allowed = system.start(f"{HEAD}>{body}</scxml>")
    assert allowed.final == "done" and not _errors(allowed)


def test_file_sources_outside_the_base_directory_are_refused(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "secret.txt").write_text("1")
    body = f'''<datamodel><data id="v" src="file:../secret.txt"/></datamodel>
      <state id="s">{LOG_ERROR}</state><final id="done"/>'''
    _, session = _run(body, base_dir=inner)
    assert "outside the base directory" in _errors(session)[0]


def test_delayed_events_wait_for_the_clock() -> None:
    system, session = _run('''
      <state id="s"><onentry><send event="tick" delay="2s"/><send event="late" delay="5s" id="late"/></onentry>
        <transition event="tick" target="t"><cancel sendid="late"/></transition></state>
      <state id="t"><transition event="late" target="wrong"/></state>
      <final id="wrong"/>''')
    assert session.active_state_ids() == ["s"]
    system.advance(1999)
    assert session.active_state_ids() == ["s"]
    system.advance(1)
    assert session.active_state_ids() == ["t"]
    system.run_until_idle(session)
    assert session.active_state_ids() == ["t"] and system.next_due() is None


def test_invoked_child_talks_to_its_parent() -> None:
    _, session = _run('''
      <state id="s">
        <invoke id="kid"><param name="n" expr="40"/><content>
          <scxml version="1.0" datamodel="ecmascript"><datamodel><data id="n"/></datamodel>
            <final id="end"><donedata><param name="answer" expr="n + 2"/></donedata></final></scxml>
        </content></invoke>
        <transition event="done.invoke.kid" cond="_event.data.answer === 42" target="done"/>
      </state><final id="done"/>''')
    assert session.final == "done"


def test_documents_cannot_exhaust_the_stack() -> None:
    deep = "".join(f'<state id="s{i}">' for i in range(300)) + "</state>" * 300
    with pytest.raises(DocumentError, match="nest deeper"):
        _run(deep)


def test_a_document_invoking_itself_is_stopped(tmp_path: Path) -> None:
    (tmp_path / "me.scxml").write_text(f'{HEAD}><state id="a"><invoke src="file:me.scxml"/></state></scxml>')
    system = ScxmlSystem(base_dir=tmp_path)
    session = system.start((tmp_path / "me.scxml").read_bytes(), base=str(tmp_path))
    deepest, depth = session, 0
    while deepest.invocations:
        deepest, depth = next(iter(deepest.invocations.values())).child, depth + 1
    assert depth == 20
    assert "invocations nest deeper than 20 levels" in deepest.errors[0]


def test_endless_delayed_sends_are_bounded() -> None:
    system = ScxmlSystem(max_external_events=500)
    session = system.start(f'{HEAD}><state id="a"><onentry><send event="t" delay="1ms"/></onentry>'
                           '<transition event="t" target="a"/></state></scxml>')
    with pytest.raises(ScxmlRunError, match="over 500 external events"):
        system.run_until_idle(session)


def test_xml_content_is_a_dom_in_every_session() -> None:
    _, session = _run('''
      <datamodel><data id="books"><books xmlns=""><book title="one"/><book title="two">text</book></books></data>
      </datamodel>
      <state id="s">
        <onentry><script>books.getElementsByTagName("book")[0].setAttribute("title", "ONE");</script></onentry>
        <invoke id="kid"><content>
          <scxml version="1.0" datamodel="ecmascript" initial="wait">
            <state id="wait"><onentry><send target="#_parent" event="ready"/></onentry>
              <transition event="books" target="end">
              <send target="#_parent" event="seen"><content expr="_event.data"/></send>
            </transition></state>
            <final id="end"/></scxml>
        </content></invoke>
        <transition event="ready"><send target="#_kid" event="books"><content expr="books"/></send></transition>
        <transition event="seen" cond="_event.data.getElementsByTagName('book')[0].getAttribute('title') === 'ONE'
            &amp;&amp; _event.data.documentElement.children[1].textContent === 'text'" target="done"/>
      </state><final id="done"/>''')
    assert session.final == "done", session.errors
