"""Caps on the size of what people write, so hostile or broken input fails fast instead of hanging.

Each cap sits far above what the largest fabric fabricctl is built for needs (100,000 GPUs:
about 3,200 leaves of 32 GPU ports, at most 100,000 servers), and each error names its cap.
"""

from __future__ import annotations

MIB = 1024 * 1024

#: One tenant file: a tenant holding every GPU of a 100,000-GPU fabric fits in well under
#: 100 KiB (ranges such as gpu00001-gpu12500); 1 MiB is ten times that.
MAX_TENANT_FILE_BYTES = 1 * MIB
#: One inventory file: hosts.yaml of 3,200 leaves + spines is about 0.5 MiB even with a few
#: data keys per host.
MAX_INVENTORY_FILE_BYTES = 8 * MIB
#: Files up to this size may use what only the careful YAML reader (ruamel, about 100 KiB of
#: text a second) reads: tags to refuse, YAML 1.1 words, syntax errors to explain. Larger files
#: must be plain YAML, which the fast reader takes at ~3 MiB a second. A tenant file is a few
#: hundred bytes; a plain hosts.yaml of 3,200 leaves (~0.5 MiB) takes the fast reader.
MAX_CAREFUL_CHARS = 64 * 1024
#: Lists and mappings inside lists and mappings: tenant files nest 4 levels, groups.yaml 6.
MAX_DEPTH = 32
#: Tenant files in tenants/: ids run 1..overlay.tenant_id_max, which is at most 99,999.
MAX_TENANT_FILES = 99_999
#: Server names one tenant selects, ranges expanded (a 100,000-GPU fabric has at most 100,000).
MAX_SERVERS = 100_000
#: GPU selections (entries of `gpus:`) of one tenant: one per GPU of the largest fabric.
MAX_GPU_SELECTIONS = 100_000
#: Port numbers (front-panel ports are numbered 1..MAX_PORT) and entries of one port list.
MAX_PORT = 4096
#: NIC numbers of one server (cabling.nics_per_server is at most 16).
MAX_NICS = 16
#: Peers of one tenant: each is an ACL entry on every port of the tenant, and no platform holds
#: more than 12,288 entries per switch.
MAX_SHARED_WITH = 16_384
#: One server name or range as written (gpu00001-gpu12500 is 19 characters).
MAX_SERVER_NAME = 64


def size_text(size: int) -> str:
    """1048576 -> '1 MiB': a cap as an error message says it."""
    return f"{size // MIB} MiB" if size % MIB == 0 else f"{size} bytes"
