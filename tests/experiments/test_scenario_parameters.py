"""Declared parameters: a scenario is checked against its kind when built, so a value of
the wrong type or range is a UsageError at load time and never reaches a run."""

import math
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wwanlab.core.errors import UsageError
from wwanlab.experiments.scenario import (
    KIND_PARAMETERS,
    Parameter,
    Scalar,
    Scenario,
    load_kinds,
    scenario_from_dict,
)
from wwanlab.reproductions import PACKAGES

load_kinds(PACKAGES)  # imports every module that registers kinds, whatever was imported before
DECLARED = sorted(KIND_PARAMETERS)

SCALARS: st.SearchStrategy[Scalar] = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)


def valid(parameter: Parameter, value: object) -> bool:
    """What the declaration allows, written out independently of ``Parameter.check``."""
    if parameter.type is bool:
        return isinstance(value, bool)
    if parameter.type is str:
        return isinstance(value, str) and (not parameter.choices or value in parameter.choices)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if parameter.type is int and not isinstance(value, int):
        return False
    return (
        math.isfinite(value)
        and (parameter.minimum is None or value >= parameter.minimum)
        and (parameter.maximum is None or value <= parameter.maximum)
    )


def a_valid_value(parameter: Parameter) -> Scalar:
    if parameter.choices:
        return sorted(parameter.choices)[0]
    if parameter.type is bool:
        return True
    if parameter.type is str:
        return "x"
    return int((parameter.minimum or 0) + 2)


def test_the_built_in_kinds_declare_their_parameters() -> None:
    assert {"probe", "wap-vs-tcp"} <= set(DECLARED)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_value_is_accepted_exactly_when_the_declaration_allows_it(
    data: st.DataObject,
) -> None:
    kind = data.draw(st.sampled_from(DECLARED))
    declared = KIND_PARAMETERS[kind]
    name = data.draw(st.sampled_from(sorted(declared)))
    choices: list[Scalar] = sorted(declared[name].choices) or [0]
    value: Scalar = data.draw(SCALARS | st.sampled_from(choices))
    params: dict[str, Scalar] = {
        key: a_valid_value(p) for key, p in declared.items() if p.required and key != name
    }
    in_sweep = data.draw(st.booleans())
    sweep: dict[str, list[Scalar]] = {name: [value]} if in_sweep else {}
    if not in_sweep:
        params[name] = value
    try:
        Scenario(name="s", kind=kind, params=params, sweep=sweep)
        accepted = True
    except UsageError as error:
        accepted = False
        assert name in str(error)
    assert accepted == valid(declared[name], value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('count = "abc"', "workload.count must be an integer, got 'abc'"),
        ("count = 10.5", "workload.count must be an integer, got 10.5"),
        ("count = 1", "workload.count must be at least 2, got 1"),
        ("count = inf", "workload.count must be an integer, got inf"),
        ("count = [1, 2]", "must be a number, string or boolean"),
    ],
)
def test_toml_values_of_the_wrong_type(line: str, message: str) -> None:
    document = tomllib.loads(
        f'name = "x"\nkind = "probe"\n[link]\npreset = "serial-9k6"\n[workload]\n{line}\n'
    )
    with pytest.raises(UsageError, match=message.replace("[", r"\[").replace(".", r"\.")):
        scenario_from_dict(document, source="x.toml")


def test_a_float_parameter_takes_integers_as_toml_writes_them() -> None:
    document = tomllib.loads(
        'name = "x"\nkind = "probe"\n[link]\npreset = "serial-9k6"\n[link.overrides]\nloss = 0\n'
    )
    assert scenario_from_dict(document).params["link.overrides.loss"] == 0
