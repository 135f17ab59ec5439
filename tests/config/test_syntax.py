"""The declarative syntax: an object tree read from YAML, diffed by the same engine as a modal CLI,
and changed by `set <path> <value>` / `unset <path>`."""

from __future__ import annotations

import pytest

from fabricctl.config.diff import diff_device, parse_config
from fabricctl.config.rules import Dialect, Provenance
from fabricctl.config.syntax import ConfigTextError, ModalCli, ObjectTree

TREE = Dialect(
    syntax=ObjectTree(collections=("interface", "vrf"), set_command="nv set", unset_command="nv unset"),
    owned=(r"qos$",),
    ports=r"interface swp",
    tenant_objects=(Provenance("vrf", r"vrf (?P<key>\S+)$", follows="vrf"),),
    single_value=(r"[^ ]+: ",),
)

RUNNING = """\
- header:
    model: SN5600
    rev-id: 1.0
- set:
    interface:
      eth0:
        ip:
          vrf: mgmt
      swp1:
        link:
          mtu: 1500
          state: {up: {}}
        description: old
      swp2:
        description: spare
    qos:
      roce:
        enable: on
    vrf:
      tnt-a:
        table: auto
"""

INTENDED = """\
interface:
  swp1:
    link:
      mtu: 9216
      state: {up: {}}
    description: fabricctl lab tnt-b
qos:
  roce:
    enable: on
    mode: lossless
vrf:
  tnt-b:
    table: auto
"""


def test_collections_are_flattened_and_scalars_stay_text() -> None:
    tree = parse_config(RUNNING, TREE)
    assert list(tree.children) == ["interface eth0", "interface swp1", "interface swp2", "qos", "vrf tnt-a"]
    assert "enable: on" in tree.children["qos"].children["roce"].children  # not YAML 1.1's True
    assert "up" in tree.children["interface swp1"].children["link"].children["state"].children


def test_a_diff_is_set_and_unset_of_paths_within_the_owned_scope() -> None:
    dd = diff_device("leaf1", RUNNING, INTENDED, TREE)
    assert dd.commands == [
        "nv set interface swp1 description 'fabricctl lab tnt-b'",
        "nv set interface swp1 link mtu 9216",
        "nv set qos roce mode lossless",
        "nv set vrf tnt-b table auto",
    ]
    # A new value replaces the old one (no unset); eth0 and the unplanned swp2 are never touched.
    assert "-    mtu: 1500" in dd.diff and "+    mtu: 9216" in dd.diff
    assert "eth0" not in dd.diff and "swp2" not in dd.diff
    # A VRF that only looks like fabricctl's is reported and kept, unless pruned.
    assert dd.lookalikes == ["vrf tnt-a"] and "tnt-a" not in dd.diff
    assert diff_device("leaf1", RUNNING, INTENDED, TREE, prune=True).commands[-1] == "nv unset vrf tnt-a"


def test_the_same_tree_in_another_layout_is_no_change() -> None:
    bare = "vrf:\n  tnt-a: {table: auto}\nqos: {roce: {enable: 'on'}}\n"
    listed = (
        "- set:\n    qos:\n      roce:\n        enable: on\n    vrf:\n      tnt-a:\n        table: auto\n"
    )
    dd = diff_device("leaf1", listed, bare, TREE)
    assert not dd.changed and dd.intended_hash == diff_device("leaf1", bare, listed, TREE).intended_hash


def test_an_object_removed_whole_is_one_unset_and_members_of_a_list_are_keys() -> None:
    running = "interface:\n  swp1:\n    bridge: {domain: {br_default: {vlan: ['10', '20']}}}\n"
    intended = "interface:\n  swp1:\n    bridge: {domain: {br_default: {vlan: ['10', '30']}}}\n"
    dd = diff_device("leaf1", running, intended, TREE)
    assert dd.commands == [
        "nv unset interface swp1 bridge domain br_default vlan 20",
        "nv set interface swp1 bridge domain br_default vlan 30",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("interface:\n  swp1: [\n", r"config is not YAML at line 3"),
        ("- 3\n", r"other than `header` and `set` parts"),
        ("just text\n", r"neither a mapping nor a list"),
    ],
)
def test_text_that_is_not_an_object_tree_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(ConfigTextError, match=message):
        parse_config(text, TREE)


def test_a_modal_cli_negates_and_leaves_each_block() -> None:
    modal = Dialect(
        syntax=ModalCli(indent=1, negate_prefix="undo ", exit_command="quit"), ports=r"interface "
    )
    dd = diff_device(
        "leaf1",
        "interface 400GE1/0/1\n mtu 1500\n shutdown\n",
        "interface 400GE1/0/1\n mtu 9216\n",
        modal,
    )
    assert dd.commands == [
        "interface 400GE1/0/1",
        " undo mtu 1500",
        " undo shutdown",
        " mtu 9216",
        " quit",
    ]


def test_a_choice_is_a_value_set_by_naming_its_member() -> None:
    chosen = Dialect(
        syntax=ObjectTree(
            collections=("interface",), set_command="nv set", unset_command="nv unset", choices=("state",)
        ),
        ports=r"interface swp",
        single_value=(r"[^ ]+: ",),
    )
    running = "interface:\n  swp1:\n    link:\n      state: {up: {}}\n    ip: {address: {10.0.0.1/31: {}}}\n"
    intended = "interface:\n  swp1:\n    link:\n      state: down\n    ip: {address: {10.0.0.3/31: {}}}\n"
    tree = parse_config(running, chosen)
    assert "state: up" in tree.children["interface swp1"].children["link"].children
    assert diff_device("leaf1", running, intended, chosen).commands == [
        "nv unset interface swp1 ip address 10.0.0.1/31",  # a set's member is no choice
        "nv set interface swp1 ip address 10.0.0.3/31",
        "nv set interface swp1 link state down",  # replaces `up`, never unsets it
    ]
