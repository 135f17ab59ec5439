"""EOS `show` commands about the management plane and the system: logging (and `send log`),
SNMP, the management APIs, zero-touch, maintenance, extensions, PTP, the flash file system,
and the hardware tables a health check reads (PCIe, forwarding-table capacity, PHY FEC).

Text and eAPI JSON, as show.py: the JSON carries the keys of Arista's eAPI models in the shapes
Arista's ANTA developers record in their unit tests (tests/units/anta_tests of
aristanetworks/anta), the text the layout those tests parse (`show logging`, `show management
ssh` are text-only on EOS). The values come from the running config (logging hosts, SNMP
location, the API's state) and the lab's fixed hardware facts.
"""

from __future__ import annotations

import re
import time
from typing import Any

from fabricctl.lab.devices.eos.render import EOS_VERSION
from fabricctl.lab.dialect import CliError
from fabricctl.lab.traffic import RX_LOW_ALARM_DBM, port_traffic
from fabricctl.lab.view import Shown, View, registry

SHOWS, show = registry()

#: syslog severities (RFC 5424 section 6.2.1) as EOS names them, and the mnemonic `send log` uses.
SEVERITIES = (
    "emergencies",
    "alerts",
    "critical",
    "errors",
    "warnings",
    "notifications",
    "informational",
    "debugging",
)
_MNEMONIC = ("EMERG", "ALERT", "CRIT", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG")
_UNIT = {"seconds": 1, "minutes": 60, "hours": 3600, "days": 86400}
_SEVERITY = "|".join(SEVERITIES)


def _lines(view: View, *head: str) -> list[list[str]]:
    """The words of every top-level running-config line that starts with `head`."""
    n = len(head)
    return [t.split() for t in view.running.children if t.split()[:n] == list(head)]


# --- logging ------------------------------------------------------------------------------------


def _stamp(view: View, at: float) -> str:
    """EOS's default (traditional) log timestamp: `Mar 13 04:10:45`, on the switch's clock."""
    calendar = time.gmtime(view.calendar - view.now + at)
    return time.strftime("%b", calendar) + f" {calendar.tm_mday:>2} " + time.strftime("%H:%M:%S", calendar)


def _buffer(view: View) -> list[tuple[float, int, str]]:
    """The switch's log since boot: what it logged booting, each BGP session that came up, and
    what `send log` added. (lab time, severity, line)."""
    boot = view.now - view.uptime
    host = view.hostname
    out: list[tuple[float, int, str]] = [
        (boot, 5, f"{host} Launcher: %LAUNCHER-5-PROCESS_START: Process Sysdb started"),
        (boot + 1, 5, f"{host} ConfigAgent: %SYS-5-CONFIG_STARTUP: Startup complete"),
    ]
    for s in sorted(view.state.sessions.get(view.name, {}).values(), key=lambda s: s.peer):
        if s.state == "Established":
            out.append(
                (
                    boot + 5,
                    5,
                    f"{host} Bgp: %BGP-5-ADJCHANGE: peer {s.peer} (VRF default AS {s.remote_as}) old state "
                    "OpenConfirm event RecvKeepAlive new state Established",
                )
            )
    out += [(at, sev, f"{host} {agent}: {text}") for at, sev, agent, text in view.dev.log]
    return sorted(out, key=lambda e: e[0])


def _log_lines(view: View, severity: str | None, last: tuple[int, str] | None, count: int | None) -> str:
    worst = SEVERITIES.index(severity) if severity else 7
    since = view.now - last[0] * _UNIT[last[1]] if last else None
    rows = [
        f"{_stamp(view, at)} {line}"
        for at, sev, line in _buffer(view)
        if sev <= worst and (since is None or at >= since)
    ]
    return "\n".join(rows[-count:] if count else rows)


@show(
    rf"show logging(?: (?P<count>\d+))?(?: (?P<severity>{_SEVERITY}))?"
    r"(?: last (?P<n>\d+) (?P<unit>seconds|minutes|hours|days))?"
)
def logging(view: View, m: re.Match[str]) -> Shown:
    """The logging settings and the buffer (text only on EOS); with a severity, a count or a
    window, only the matching lines of the buffer."""
    last = (int(m["n"]), m["unit"]) if m["n"] else None
    count = int(m["count"]) if m["count"] else None
    if m["severity"] or last or count:
        return _log_lines(view, m["severity"], last, count), None
    hosts = [w[2] for w in _lines(view, "logging", "host") if len(w) >= 3]
    buffered = next((w[2] for w in _lines(view, "logging", "buffered") if len(w) >= 3), None)
    rows = [
        "Syslog logging: enabled",
        f"    Buffer logging: {'level debugging' if buffered else 'disabled'}",
        "    Console logging: level errors",
        "    Persistent logging: disabled",
        "    Monitor logging: level errors",
        "    Synchronous logging: disabled",
        "    Trap logging: level informational",
        *[f"    Logging to '{h}' port 514 in VRF default via udp" for h in hosts],
        "    Sequence numbers: disabled",
        "    Syslog facility value: local4",
        "    Hostname format: Hostname only",
        "    Repeat logging interval: disabled",
        "    Repeat messages: disabled",
        "    Root login logging: disabled",
        "",
        "    External configuration:",
        "        active:",
        "        inactive:",
        "",
        "    Facility                   Severity            Effective Severity",
        "    --------------------       -------------       ------------------",
        *[
            f"    {f:<26} {'debugging':<19} debugging"
            for f in ("aaa", "accounting", "acl", "agent", "bfd", "bgp", "lldp", "sys")
        ],
        "",
        f"Log Buffer:\n{_log_lines(view, None, None, None)}" if buffered else "",
    ]
    return "\n".join(rows).rstrip("\n"), None


@show(r"show logging threshold (?P<severity>\S+)(?: last (?P<n>\d+) (?P<unit>seconds|minutes|hours|days))?")
def logging_threshold(view: View, m: re.Match[str]) -> Shown:
    """The lines of the buffer at this severity or worse: none on a healthy switch."""
    if m["severity"] not in SEVERITIES:
        raise CliError(f"% Invalid input (at token 3: '{m['severity']}')")
    last = (int(m["n"]), m["unit"]) if m["n"] else None
    return _log_lines(view, m["severity"], last, None), None


@show(rf"send log level (?P<severity>{_SEVERITY}) message (?P<text>.+)")
def send_log(view: View, m: re.Match[str]) -> Shown:
    """A message into the log at that severity, as ConfigAgent logs it for the user."""
    sev = SEVERITIES.index(m["severity"])
    user = "admin"
    text = f"%SYS-{sev}-LOGMSG_{_MNEMONIC[sev]}: Message from {user} on command-api (127.0.0.1): {m['text']}"
    view.dev.log.append((view.now, sev, "ConfigAgent", text))
    return "", {}


#: What EOS keeps in flash besides the configs: its persistent log file, empty until `logging
#: persistent` writes to it (the file ANTA's VerifyLoggingPersistent lists).
PERSIST_LOG = "persist/messages"


@show(r"dir(?: flash:(?P<path>\S*))?")
def directory(view: View, m: re.Match[str]) -> Shown:
    """The flash file system: the files the switch holds (startup-config, the copies of it, the
    persistent log)."""
    path = (m["path"] or "").strip("/")
    files = {f"EOS-{EOS_VERSION}.swi": "", "boot-config": _boot_config(), "startup-config": view.dev.startup}
    files |= view.dev.files
    if path == PERSIST_LOG:
        files, path = {"messages": ""}, PERSIST_LOG
    elif path:
        if path not in files:
            raise CliError(f"% Error listing directory flash:/{path} (No such file or directory)")
        files = {path: files[path]}
    rows = [f"Directory of flash:/{path}", ""]
    for name, text in files.items():
        size = IMAGE_BYTES if name.endswith(".swi") else len(text)
        rows.append(f"       -rwx   {size:>9}           {_stamp(view, view.now)[:12]}  {name}")
    rows += ["", "3999125504 bytes total (2965143552 bytes free)"]
    return "\n".join(rows), None


IMAGE_BYTES = 1_034_411_827  # the EOS image the switch boots (a 4.31 SWI)


def _boot_config() -> str:
    return f"SWI=flash:/EOS-{EOS_VERSION}.swi\n"


@show(r"show boot-config")
def boot_config(view: View, m: re.Match[str]) -> Shown:
    """The image the switch boots (flash:/boot-config), in the layout of real EOS output."""
    text = (
        f"Software image: flash:/EOS-{EOS_VERSION}.swi\n"
        "Console speed: (not set)\n"
        "Aboot password (encrypted): (not set)\n"
        "Memory test iterations: (not set)"
    )
    return text, {
        "softwareImage": f"flash:/EOS-{EOS_VERSION}.swi",
        "consoleSpeed": 0,
        "abootPassword": "",
        "memTestIterations": 0,
    }


@show(r"bash(?: timeout \d+)? df -h")
def disk_free(view: View, m: re.Match[str]) -> Shown:
    """The Linux file systems under EOS (`df -h`): flash a quarter full, the root overlay in RAM."""
    rows = [
        "Filesystem      Size  Used Avail Use% Mounted on",
        "/dev/sda2       3.7G  968M  2.8G  26% /mnt/flash",
        "none            7.8G  412M  7.4G   6% /",
        "none            7.8G  412M  7.4G   6% /.overlay",
        "tmpfs           7.8G   12M  7.8G   1% /dev/shm",
    ]
    return "\n".join(rows), None


@show(r"show agent logs crash")
def agent_crashes(view: View, m: re.Match[str]) -> Shown:
    """No agent crashed since boot: EOS prints nothing."""
    return "", None


# --- SNMP ---------------------------------------------------------------------------------------

_SNMP_COUNTERS = (
    "inPkts",
    "inVersionErrs",
    "inBadCommunityNames",
    "inBadCommunityUses",
    "inParseErrs",
    "inRequestVars",
    "inSetVars",
    "inGetPdus",
    "inGetNextPdus",
    "inSetPdus",
    "outPkts",
    "outTooBigErrs",
    "outNoSuchNameErrs",
    "outBadValueErrs",
    "outGeneralErrs",
    "outGetResponsePdus",
    "outTrapPdus",
)


@show(r"show snmp")
def snmp(view: View, m: re.Match[str]) -> Shown:
    """The agent: on in the default VRF once a community is configured; nobody polls the lab,
    so its counters are zero."""
    communities = [w[2] for w in _lines(view, "snmp-server", "community") if len(w) >= 4]
    location = next((" ".join(w[2:]) for w in _lines(view, "snmp-server", "location")), "")
    contact = next((" ".join(w[2:]) for w in _lines(view, "snmp-server", "contact")), "")
    enabled = bool(communities)
    rows = [
        f"Chassis: {view.dev.serial()}",
        *([f"Contact: {contact}"] if contact else []),
        *([f"Location: {location}"] if location else []),
        "0 SNMP packets input",
        "    0 Bad SNMP version errors",
        "    0 Unknown community name",
        "    0 Illegal operation for community name supplied",
        "    0 Encoding errors",
        "    0 Number of requested variables",
        "    0 Number of altered variables",
        "    0 Get-request PDUs",
        "    0 Get-next PDUs",
        "    0 Set-request PDUs",
        "0 SNMP packets output",
        "    0 Too big errors",
        "    0 No such name errors",
        "    0 Bad value errors",
        "    0 General errors",
        "    0 Response PDUs",
        "    0 Trap PDUs",
        "Access Control",
        *[f"    Community: {c}" for c in communities],
        "SNMP logging: disabled",
        f"SNMP agent enabled in VRFs: {'default' if enabled else ''}".rstrip(),
    ]
    data = {
        "chassisId": view.dev.serial(),
        "contact": {"contact": contact},
        "location": {"location": location},
        "counters": dict.fromkeys(_SNMP_COUNTERS, 0),
        "logging": {"loggingEnabled": False, "hosts": {}},
        "enabled": enabled,
        "vrfs": {"snmpVrfs": ["default"] if enabled else []},
        "notificationsEnabled": False,
    }
    return "\n".join(rows), data


@show(r"show snmp community")
def snmp_community(view: View, m: re.Match[str]) -> Shown:
    """The v2c communities and their access, as real EOS output lists them."""
    found = {
        w[2]: "read-only" if w[3] == "ro" else "read-write"
        for w in _lines(view, "snmp-server", "community")
        if len(w) >= 4
    }
    text = "\n\n".join(
        f"Community name: {name}\nCommunity access: {access}" for name, access in found.items()
    )
    return text, {
        "communities": {name: {"access": access.replace("-", "")} for name, access in found.items()}
    }


@show(r"show snmp (?P<what>user|group)")
def snmp_v3(view: View, m: re.Match[str]) -> Shown:
    """SNMPv3 users and groups: none configured (the lab's agent answers v2c communities)."""
    key = {"user": "usersByVersion", "group": "groups"}[m["what"]]
    return "", {key: {}}


@show(r"show snmp notification host")
def snmp_hosts(view: View, m: re.Match[str]) -> Shown:
    return "", {"hosts": []}


# --- management APIs, SSH, telnet ---------------------------------------------------------------


def _api_on(view: View) -> bool:
    node = view.running.children.get("management api http-commands")
    return node is not None and "shutdown" not in node.children


@show(r"show management api http-commands")
def api_http(view: View, m: re.Match[str]) -> Shown:
    """eAPI: HTTPS on 443 when `management api http-commands` is not shut down (HTTPS is EOS's
    default protocol; plain HTTP is off)."""
    on = _api_on(view)
    data = {
        "enabled": on,
        "httpServer": {"configured": False, "running": False, "port": 80},
        "localHttpServer": {"configured": False, "running": False, "port": 8080},
        "httpsServer": {"configured": on, "running": on, "port": 443},
        "unixSocketServer": {"configured": False, "running": False},
        "sslProfile": {"name": "", "configured": False, "state": "valid"},
        "tlsProtocol": ["1.2"],
        "vrfs": {"default": {"state": "enabled" if on else "disabled", "ipv4Acl": "", "ipv6Acl": ""}}
        if on
        else {},
        "urls": [f"Management1 : https://{view.dev.spec.mgmt_ip}:443"] if on else [],
    }
    rows = [
        f"Enabled:            {'Yes' if on else 'No'}",
        f"HTTPS server:       {'running, set to use port 443' if on else 'shutdown, set to use port 443'}",
        "HTTP server:        shutdown, set to use port 80",
        "Local HTTP server:  shutdown, no authentication, set to use port 8080",
        "Unix Socket server: shutdown, no authentication",
        "VRFs:               " + ("default" if on else "None"),
        "Hits:               0",
        "Last hit:           never",
        "Bytes in:           0",
        "Bytes out:          0",
        "Requests:           0",
        "Commands:           0",
        "Duration:           0.000 seconds",
        "SSL Profile:        none",
        "FIPS Mode:          No",
        "QoS DSCP:           0",
        "Log Level:          none",
        "CSP Frame Ancestor: None",
        "TLS Protocols:      1.2",
    ]
    return "\n".join(rows), data


@show(r"show management (?P<api>api http-commands|ssh|api gnmi) (?P<family>ip|ipv6) access-list summary")
def api_acls(view: View, m: re.Match[str]) -> Shown:
    """No access list guards the management plane: one entry per VRF with none attached."""
    key = "ipAclList" if m["family"] == "ip" else "ipv6AclList"
    return "", {key: {"aclList": []}}


@show(r"show management ssh")
def ssh(view: View, m: re.Match[str]) -> Shown:
    """SSH in the default VRF, where the management port is (text only on EOS)."""
    rows = [
        "SSHD status for Default VRF is enabled",
        "SSH connection limit is 50",
        "SSH per host connection limit is 20",
        "FIPS status: disabled",
        "",
    ]
    return "\n".join(rows), None


@show(r"show management telnet")
def telnet(view: View, m: re.Match[str]) -> Shown:
    return "Telnet status for Default VRF is disabled\nTelnet session limit is 20", {
        "serverState": "disabled",
        "vrfName": "default",
        "maxTelnetSessions": 20,
        "maxTelnetSessionsPerHost": 20,
    }


@show(r"show management security")
def security(view: View, m: re.Match[str]) -> Shown:
    return "Entropy source: none\nHardware entropy source: disabled", {
        "entropySourceHardware": False,
        "entropySourceHaveged": False,
        "entropySourceJitter": False,
        "hardwareEntropyExport": False,
        "blockedNetworkProtocols": [],
    }


# --- boot, maintenance, software -------------------------------------------------------------------


@show(r"show zerotouch")
def zerotouch(view: View, m: re.Match[str]) -> Shown:
    """Zero-touch provisioning is off on a configured switch (it cancels itself once a startup
    config exists)."""
    return "ZeroTouch Mode: disabled", {"mode": "disabled"}


@show(r"show maintenance")
def maintenance(view: View, m: re.Match[str]) -> Shown:
    """No unit is in maintenance: EOS answers with its warning."""
    return "Maintenance Mode is disabled.", {
        "units": {},
        "interfaces": {},
        "vrfs": {},
        "warnings": ["Maintenance Mode is disabled."],
    }


@show(r"show (?P<boot>boot-)?extensions")
def extensions(view: View, m: re.Match[str]) -> Shown:
    """No EOS extension (SWIX) is installed, or set to install at boot."""
    if m["boot"]:
        return "", {"extensions": []}
    return "No extensions are available", {
        "extensions": {},
        "extensionStoredDir": "flash:",
        "warnings": ["No extensions are available"],
    }


@show(r"show ptp(?: (?P<what>monitor|interface))?")
def ptp(view: View, m: re.Match[str]) -> Shown:
    """PTP as an unconfigured switch shows it: disabled, no PTP ports (fabricctl configures none)."""
    if m["what"] == "monitor":
        return "PTP monitor is enabled", {"monitorEnabled": True, "ptpMonitorData": []}
    return "PTP Mode: Disabled", {"ptpMode": "ptpDisabled", "ptpIntfSummaries": {}}


@show(r"show running-config diffs")
def running_diffs(view: View, m: re.Match[str]) -> Shown:
    """The difference between startup and running: nothing once the config is saved."""
    from fabricctl.lab.devices.eos.spelling import session_diff

    diff = session_diff(
        view.dev.startup, view.dev.running_text(), "flash:/startup-config", "system:/running-config"
    )
    return diff.rstrip("\n"), None


# --- hardware ------------------------------------------------------------------------------------


@show(r"show pci")
def pci(view: View, m: re.Match[str]) -> Shown:
    """The PCIe devices of a fixed switch (CPU root complex, the switching ASIC, the SSD): no errors."""
    devices = {
        "00:00.0": ("DomainRoot0", 0.0, 0),
        "01:00.0": ("SwitchChip0", 8.0, 4),
        "02:00.0": ("Ssd0", 8.0, 2),
    }
    rows = ["Name                    Address  CE  NFE  FE  Speed  Width"]
    data = {}
    for address, (name, speed, width) in devices.items():
        rows.append(f"{name:<23} {address}  0   0    0   {speed:<5}  {width}")
        data[address] = {
            "name": name,
            "correctableErrors": 0,
            "nonFatalErrors": 0,
            "fatalErrors": 0,
            "linkSpeed": speed,
            "linkWidth": width,
        }
    return "\n".join(rows), {"pciIds": data}


#: Forwarding tables of the switch and how much of each a fabric switch of this size fills.
_TABLES = ("Routing-V4Routes", "Routing-V6Routes", "MAC-Entries", "ACL-Ingress", "VXLAN-Tunnels")


@show(r"show hardware capacity alert threshold")
def capacity_thresholds(view: View, m: re.Match[str]) -> Shown:
    data = {t: {"configThreshold": 90, "configClearThreshold": 90, "defaultThreshold": 90} for t in _TABLES}
    rows = ["Table                Threshold  Clear Threshold", *[f"{t:<20} 90         90" for t in _TABLES]]
    return "\n".join(rows), {"thresholds": data}


@show(r"show hardware capacity utilization percent exceed (?P<percent>\d+)")
def capacity_exceeded(view: View, m: re.Match[str]) -> Shown:
    """The tables filled past the percentage: none (the lab's tables hold a few hundred entries)."""
    return "", {"tables": []}


@show(r"show interfaces phy detail")
def phy_detail(view: View, m: re.Match[str]) -> Shown:
    """Each cabled front-panel port's PHY: RS-FEC corrects a few codewords at a pre-FEC BER of a
    healthy 400G PAM4 link; an optic past its low alarm (optic_degrading) pushes the BER up and
    leaves codewords uncorrected, one per FCS error."""
    data, rows = {}, []
    for s in view.ports:
        if not s.name.startswith("Ethernet") or not view.cabled(s.name):
            continue
        traffic = port_traffic(view.state, view.name, s.name, view.now)
        ber = 3.2e-5 if traffic.rx_dbm <= RX_LOW_ALARM_DBM else 2.1e-10
        corrected = int(view.uptime) * 12
        phy: dict[str, Any] = {
            "description": {"phyChipName": "BCM56990-TSCBH", "location": "line"},
            "operSpeed": "400Gbps" if s.oper_up else "unknown",
            "phyState": {"value": "linkUp" if s.oper_up else "linkDown", "changes": traffic.link_changes},
        }
        if s.oper_up:  # a link that is down decodes nothing: no FEC counters, no BER
            phy["fec"] = {
                "encoding": "reedSolomon544",
                "correctedCodewords": {"value": corrected, "changes": corrected, "lastChange": view.calendar},
                "uncorrectedCodewords": {"value": traffic.fcs_errors, "changes": 0, "lastChange": 0.0},
            }
            phy["preFecBer"] = {"value": ber}
        data[s.name] = {
            "phyStatuses": [phy],
            "interfaceState": {},
            "transceiver": {},
            "macFaults": {},
        }
        rows += [f"{s.name}", f"  PHY state                   {phy['phyState']['value']}"]
        if s.oper_up:
            rows += [
                "  Forward Error Correction    Reed-Solomon 544",
                f"  FEC corrected codewords     {corrected}",
                f"  FEC uncorrected codewords   {traffic.fcs_errors}",
                f"  Pre-FEC bit error rate      {ber:.3e}",
            ]
    return "\n".join(rows), {"interfacePhyStatuses": data}
