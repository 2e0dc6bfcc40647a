"""Every option of the synth group composes against its schema and instantiates; typos fail when composed."""

from __future__ import annotations

import pytest
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate

from harness.cli.synth import KINDS, compose_synth
from harness.synth.cloze import ClozeWriter
from harness.synth.duplicates import DuplicatesFilter
from harness.synth.llm import LLMWriter
from harness.synth.settings import SynthSettings


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_instantiates(kind):
    cfg = compose_synth(kind, [])
    settings = instantiate(cfg.synth)
    assert isinstance(settings, SynthSettings) and settings.kind == kind
    assert isinstance(settings.writer, {"cloze": ClozeWriter, "llm": LLMWriter}[kind])
    assert [f.name for f in settings.candidate_filters] == ["roundtrip", "answerability", "context_dependence"]
    assert isinstance(settings.duplicates, DuplicatesFilter) and settings.seed == cfg.seed
    # cloze runs with no model: the answer filters are off; llm writes with the embedded SmolLM2.
    assert [f.name for f in settings.enabled_filters()] == (
        ["roundtrip"] if kind == "cloze" else ["roundtrip", "answerability", "context_dependence"])
    assert cfg.generator._target_.endswith("NoGenerator" if kind == "cloze" else "LocalGenerator")


def test_a_named_generator_is_kept_and_typos_fail_when_composed():
    assert compose_synth("llm", ["generator=openai"]).generator._target_.endswith("OpenAIChatGenerator")
    for override, key in (("synth.filters.roundtrip.levle=passage", "levle"), ("synth.writer.spans=[number]", "spans"),
                          ("synth.filters.duplicates.max_cosine=high", "max_cosine")):
        with pytest.raises(ConfigCompositionException, match=key):
            compose_synth("cloze", [override])
    with pytest.raises(ValueError, match="--kind must be one of"):
        compose_synth("ragas", [])


def test_settings_are_checked_when_built():
    cfg = compose_synth("llm", ["synth.writer.multi_hop=1.5"])
    with pytest.raises(Exception, match="synth.writer.multi_hop must be between 0 and 1, got 1.5"):
        instantiate(cfg.synth)
    cfg = compose_synth("llm", ["synth.writer.single='{passage} {question}'"])
    with pytest.raises(Exception, match="synth.writer.single has an unknown placeholder 'question'"):
        instantiate(cfg.synth)
