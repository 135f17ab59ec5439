"""`nv show platform transceiver ...` and `nv show interface <if> transceiver`: the optics of
the lab's NVUE twin, in the shape NVIDIA's NVUE Command Reference prints (Show Commands >
Platform, since Cumulus Linux 5.11: `nv show platform transceiver <interface>` with
`channel-N` > `rx-power` > `power` "0.8625 mW / -0.64 dBm" and its high/low alarm and warning
thresholds; the condensed `nv show interface <if> transceiver` with `ch-N-rx-power`).

Every cabled front-panel port holds a module (an 800G 2xDR4 optic: 8 lanes); a port with no
cable holds none and is absent, as on a switch. Receive power and its fall under the
`optic_degrading` fault come from lab/traffic.py, so every NOS twin reads the same light.
"""

from __future__ import annotations

from typing import Any

from fabricctl.lab.hardware import optic_serial
from fabricctl.lab.traffic import RX_LOW_ALARM_DBM, RX_LOW_WARN_DBM, port_traffic
from fabricctl.lab.view import View

LANES = 8
#: The module's other figures (fixed: the lab carries no light but the receive power).
TX_DBM, BIAS_MA, TEMP_C, VOLTS = -0.46, 6.75, 42.56, 3.2862
RX_HIGH_ALARM_DBM, RX_HIGH_WARN_DBM = 5.40, 2.40


def _mw(dbm: float) -> float:
    return 10 ** (dbm / 10) if dbm > -40 else 0.0


def _power(dbm: float) -> str:
    return f"{_mw(dbm):.4f} mW / {dbm:.2f} dBm"


def modules(view: View) -> list[str]:
    """The switch ports that hold a module: every cabled swp."""
    return [p for p in view.facts.ports if p.startswith("swp") and view.cabled(p)]


def transceiver(view: View, port: str) -> dict[str, Any]:
    """`nv show platform transceiver <port> -o json`."""
    rx = port_traffic(view.state, view.name, port, view.now).rx_dbm
    lane = {
        "rx-power": {
            "power": _power(rx),
            "high-alarm-threshold": f"{RX_HIGH_ALARM_DBM:.2f} dBm",
            "low-alarm-threshold": f"{RX_LOW_ALARM_DBM:.2f} dBm",
            "high-warning-threshold": f"{RX_HIGH_WARN_DBM:.2f} dBm",
            "low-warning-threshold": f"{RX_LOW_WARN_DBM:.2f} dBm",
            "alarm": "low" if rx < RX_LOW_ALARM_DBM else "Off",
        },
        "tx-power": {"power": _power(TX_DBM), "alarm": "Off"},
        "tx-bias-current": {"current": f"{BIAS_MA:.3f} mA", "alarm": "Off"},
    }
    return {
        "cable-type": "Optical module",
        "diagnostics-status": "Diagnostic Data Available",
        "status": "plugged_enabled",
        "error-status": "N/A",
        "identifier": "OSFP",
        "vendor-name": view.model.optic_vendor,
        "vendor-pn": view.model.optic_model,
        "vendor-sn": optic_serial(view.name, port),
        "temperature": {"temperature": f"{TEMP_C:.2f} C", "alarm": "Off"},
        "voltage": {"voltage": f"{VOLTS:.4f} V", "alarm": "Off"},
        "channel": {f"channel-{n}": lane for n in range(1, LANES + 1)},
    }


def condensed(view: View, port: str) -> dict[str, Any]:
    """`nv show interface <port> transceiver -o json`: the same module, one key per lane value."""
    full = transceiver(view, port)
    out = {k: v for k, v in full.items() if not isinstance(v, dict)}
    out["temperature"] = full["temperature"]["temperature"]
    out["voltage"] = full["voltage"]["voltage"]
    for n in range(1, LANES + 1):
        lane = full["channel"][f"channel-{n}"]
        out[f"ch-{n}-rx-power"] = lane["rx-power"]["power"]
        out[f"ch-{n}-tx-power"] = lane["tx-power"]["power"]
        out[f"ch-{n}-tx-bias-current"] = lane["tx-bias-current"]["current"]
    return out


def answer(view: View, words: list[str]) -> Any:
    """The answer to `nv show <words>` when it names a transceiver path, else None."""
    held = modules(view)
    if words == ["platform", "transceiver"]:
        return {port: transceiver(view, port) for port in held}
    if len(words) == 3 and words[:2] == ["platform", "transceiver"] and words[2] in held:
        return transceiver(view, words[2])
    if len(words) == 4 and words[:2] == ["platform", "transceiver"] and words[3] == "channel":
        return {"channel": transceiver(view, words[2])["channel"]} if words[2] in held else None
    if len(words) == 3 and words[0] == "interface" and words[2] == "transceiver" and words[1] in held:
        return condensed(view, words[1])
    return None
