"""Settings that wait for a boot, as data (platforms/boot.py): which lines of a change the plan
marks `pending reboot` on a running switch, and how `check` reads the value in use and the one
the next boot takes, on the outputs the vendors document."""

from __future__ import annotations

from fabricctl.platforms import get_platform
from fabricctl.platforms.boot import BootState, pending_lines
from fabricctl.platforms.comware.boot import MAX_ECMP, read_max_ecmp
from fabricctl.platforms.eos.boot import read_routing_model


def test_every_boot_setting_names_its_source() -> None:
    for name in ("comware", "eos", "nvue"):
        settings = get_platform(name).boot_settings
        assert settings, name
        for s in settings:
            assert s.source and s.what, s
    assert [s.name for s in get_platform("comware").boot_settings if s.ecmp_cap] == ["max-ecmp-num"]


def test_a_change_of_value_waits_for_the_boot_and_the_value_in_use_does_not() -> None:
    comware = get_platform("comware").boot_settings
    running = "#\n sysname leaf1\n#\n max-ecmp-num 8\n#\n"
    assert pending_lines(comware, ["max-ecmp-num 32", "interface Vsi-interface1"], running) == [
        "max-ecmp-num 32"
    ]
    assert pending_lines(comware, ["max-ecmp-num 8"], running) == []  # already the value in use
    assert pending_lines(comware, ["max-ecmp-num 8"], "#\n sysname leaf1\n") == []  # the default, 8
    assert pending_lines(comware, ["undo max-ecmp-num"], "max-ecmp-num 32\n") == ["undo max-ecmp-num"]
    # a nested line is not the system-view setting
    assert MAX_ECMP.value_in("bgp 65001\n address-family ipv4\n   max-ecmp-num 4\n") is None


def test_a_setting_whose_default_varies_is_left_to_the_switch() -> None:
    """EOS's routing model defaults by release: adding the line marks nothing at plan time (`check`
    reads the model in use); changing an explicit one does."""
    eos = get_platform("eos").boot_settings
    line = "service routing protocols model multi-agent"
    assert pending_lines(eos, [line], "hostname leaf1\n") == []
    assert pending_lines(eos, [line], "service routing protocols model ribd\n") == [line]


def test_comware_max_ecmp_num_as_h3c_documents_it() -> None:
    """H3C IP Routing Command Reference, display max-ecmp-num (its example output)."""
    shown = (
        "<Sysname> display max-ecmp-num\n  Max-ECMP-Num in use: 6\n  Max-ECMP-Num at the next reboot: 10\n"
    )
    state = read_max_ecmp(shown)
    assert state == BootState("6", "10") and state.pending
    same = read_max_ecmp(" Max-ECMP-Num in use: 8\n Max-ECMP-Num at the next reboot: 8")
    assert same is not None and not same.pending
    assert read_max_ecmp("% Unrecognized command found at '^' position.") is None


def test_eos_routing_model_as_antas_test_data_records_it() -> None:
    """ANTA's VerifyRoutingProtocolModel cases (tests/units/anta_tests/routing/test_generic.py)."""
    success = {
        "vrfs": {"default": {}},
        "protoModelStatus": {"configuredProtoModel": "multi-agent", "operatingProtoModel": "multi-agent"},
    }
    mismatch = {
        "vrfs": {"default": {}},
        "protoModelStatus": {"configuredProtoModel": "multi-agent", "operatingProtoModel": "ribd"},
    }
    assert read_routing_model(success) == BootState("multi-agent", "multi-agent")
    waiting = read_routing_model(mismatch)
    assert waiting == BootState("ribd", "multi-agent") and waiting.pending
    assert read_routing_model({"vrfs": {}}) is None
