"""Every test session: record the finding codes it emits when KUEUE_DRA_FINDINGS_EMITTED asks for
it (testenv/findings_record.py)."""

from testenv.findings_record import recorder

_RECORDER = recorder()


def pytest_sessionstart(session):
    if _RECORDER is not None:
        _RECORDER.start()


def pytest_sessionfinish(session, exitstatus):
    if _RECORDER is not None:
        _RECORDER.finish()
