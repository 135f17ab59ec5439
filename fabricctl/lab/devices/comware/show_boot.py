"""`display max-ecmp-num`: the ECMP cap the switch booted with and the one its next boot takes
(H3C IP Routing Command Reference, display max-ecmp-num: `Max-ECMP-Num in use: 6` / `Max-ECMP-Num
at the next reboot: 10`). The cap in use is the one the lab applies to routes (lab/routing.py)."""

from __future__ import annotations

import re

from fabricctl.lab.view import Shown, View, registry

SHOWS, show = registry()


@show(r"display max-ecmp-num")
def max_ecmp(view: View, m: re.Match[str]) -> Shown:
    in_use = view.dev.booted_ecmp_cap  # what routes use (the running config's, from the next boot)
    configured = view.dev.nos.read_facts(view.name, view.running).ecmp_cap
    return f" Max-ECMP-Num in use: {in_use}\n Max-ECMP-Num at the next reboot: {configured}", None
