"""The rules a SONiC plan is made with: FRR's lines are an indented, modal CLI (vtysh: `no <line>`
removes one, `exit` leaves a node; FRR user guide vtysh.html); what fabricctl owns of CONFIG_DB and
frr.conf is patch.py's and plan.py's, and the fabric's mark (`Dialect.for_fabric`) proves a row."""

from __future__ import annotations

from fabricctl.config.rules import Dialect
from fabricctl.config.syntax import ModalCli

#: The fabric-wide frr.conf line fabricctl owns: the default BGP instance (its tenant VRFs'
#: instances and `vrf` blocks are owned by name, plan.py).
OWNED = (r"router bgp \d+$",)

DIALECT = Dialect(syntax=ModalCli(indent=1, negate_prefix="no ", exit_command="exit"), owned=OWNED)
