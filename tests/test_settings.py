"""The one ``k=v,...`` settings parser (proxy specs, ``wm_sensitivity --mixing``): junk is an error
naming the item, never a default; booleans are strict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wmrl_envs.settings import parse_bool, parse_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def test_values_go_through_their_parsers_and_junk_is_refused():
    parsers = {"rows": int, "share": float, "memo": str, "on": parse_bool}
    assert parse_settings("rows=5, share=0.5,memo=off,on=yes", parsers, "x") == \
        {"rows": 5, "share": 0.5, "memo": "off", "on": True}
    assert parse_settings("", parsers, "x") == {}
    for text, message in [("rows=abc", "rows='abc' in spec is not a int"), ("colour=red", "unknown setting 'colour=red'"),
                          ("rows", "unknown setting 'rows' in spec; the model takes rows=, share="),
                          ("on=maybe", "on='maybe' in spec is not a boolean")]:
        with pytest.raises(ValueError, match=message):
            parse_settings(text, parsers, "spec", "the model")


@given(st.text(max_size=8))
def test_a_boolean_is_true_false_or_an_error(word):
    try:
        value = parse_bool(word)
    except ValueError:
        assert word.strip().lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off")
    else:
        assert value is (word.strip().lower() in ("1", "true", "yes", "on"))


def test_the_sensitivity_benchmarks_mixing_flag_refuses_a_junk_boolean():
    from wm_sensitivity import mixing_config

    assert mixing_config("debias=false,min_pairs=4").debias is False
    with pytest.raises(ValueError, match="debias='maybe'.*not a boolean"):
        mixing_config("debias=maybe")  # read as False before
