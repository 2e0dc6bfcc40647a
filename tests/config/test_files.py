"""The package's one atomic write: the file whole or as it was, no staging file left behind."""

from __future__ import annotations

import pytest

from harness.config.files import replace_file


def test_a_file_is_replaced_whole(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    replace_file(path, "new\r\nline", newline="")
    assert path.read_bytes() == b"new\r\nline" and [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_failed_write_leaves_the_file_as_it_was_and_no_staging_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        replace_file(path, "caf\u00e9", encoding="ascii")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["state.json"]
