"""The restricted expression parser: what it reads, and what it refuses."""
import pytest
import sympy as sp

from robmod.description.expr import parse_expression, symbol, to_text
from robmod.errors import ExpressionError

D3, RL4 = symbol("D3"), symbol("RL4")


@pytest.mark.parametrize("text, expected", [
    ("0", sp.Integer(0)),
    ("pi/2", sp.pi / 2),
    ("-Pi/2", -sp.pi / 2),
    ("PI", sp.pi),
    ("D3/2", D3 / 2),
    ("D3^2 + RL4**2", D3**2 + RL4**2),
    ("sqrt(2)/2", sp.sqrt(2) / 2),
    ("Sin[pi/6]", sp.Rational(1, 2)),
    ("atan2(1, 1)", sp.pi / 4),
    ("2*D3 - 0.5", 2 * D3 - sp.Float(0.5)),
    (0.25, sp.Float(0.25)),
    (3, sp.Integer(3)),
    (2.0, sp.Integer(2)),
])
def test_parses(text, expected):
    assert sp.simplify(parse_expression(text) - expected) == 0


@pytest.mark.parametrize("payload", [
    "__import__('os').system('echo pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd').read()",
    "eval('1+1')",
    "exec('x=1')",
    "lambda: 1",
    "[x for x in range(10)]",
    "D3.__class__",
    "'text'",
    "x if y else z",
    "a < b",
    "f(1)",
    "sin(1, 2)",
    "sin",
    "a; b",
    "import os",
    "x = 1",
    "2**1000000",
    "1/0",
    "-" * 200 + "1",
    "a" * 5000,
    "Sympify('1')",
    "S('1')",
    "",
    "   ",
])
def test_refuses_malicious_and_bad(payload):
    with pytest.raises(ExpressionError):
        parse_expression(payload)


def test_refuses_non_numbers():
    for v in (True, None, [1], {"a": 1}, float("nan"), float("inf")):
        with pytest.raises(ExpressionError):
            parse_expression(v)


@pytest.mark.parametrize("expr", [D3 / 2, -sp.pi / 2, sp.Float(0.4318), D3**2 * RL4 - 3,
                                  sp.sqrt(2) * D3, sp.Rational(3, 7), sp.Integer(-4)])
def test_to_text_round_trip(expr):
    back = parse_expression(to_text(expr))
    assert sp.simplify(back - expr) == 0
