"""SONiC's identity reader on the `show version` of sonic-utilities' command reference."""

from __future__ import annotations

import pytest

from fabricctl.platforms.identity import IdentityError, same_model
from fabricctl.platforms.sonic.identity import VERSION, parse
from tests.conftest import TESTS

SHOW_VERSION = (TESTS / "captures" / "sonic" / "show_version.txt").read_text(encoding="utf-8")


def test_serial_and_model_from_show_version() -> None:
    found = parse({VERSION: SHOW_VERSION})
    assert (found.serial, found.model) == ("MT1822K07815", "MSN2700-CS2FO")
    assert same_model("SN2700", found.model) and not same_model("SN5600", found.model)


def test_the_platform_names_the_model_where_the_eeprom_has_no_model_number() -> None:
    text = SHOW_VERSION.replace("Model Number: MSN2700-CS2FO", "Model Number: N/A")
    assert parse({VERSION: text}).model == "x86_64-mlnx_msn2700-r0"


@pytest.mark.parametrize(
    "text", ["", SHOW_VERSION.replace("Serial Number: MT1822K07815", "Serial Number: N/A")]
)
def test_no_serial_is_an_error(text: str) -> None:
    with pytest.raises(IdentityError, match="Serial Number"):
        parse({VERSION: text})
