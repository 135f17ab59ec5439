"""A tenant as its owner's engineer writes it: tenants/<name>.yaml."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StrictBool, StrictInt, model_validator

from fabricctl.model.bounds import (
    MAX_GPU_SELECTIONS,
    MAX_NICS,
    MAX_PORT,
    MAX_SERVER_NAME,
    MAX_SERVERS,
    MAX_SHARED_WITH,
)
from fabricctl.model.network import Network
from fabricctl.model.problems import kind_of

TenantName = Annotated[
    str,
    Field(
        pattern=r"^[a-z][a-z0-9-]*[a-z0-9]$",
        min_length=2,
        max_length=24,
        description="Lower-case letters, digits and '-', 2-24 characters, starting with a letter and "
        "not ending with '-'; used in VRF, VSI and ACL names on every switch, so it is restricted "
        "to what every CLI accepts.",
    ),
]

# Free text reaches switch configs (descriptions): no newline, no CLI specials such as '?', '|',
# '!' or '#', so it can never start or split a command line.
SafeText = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._,:/()+@&=-]*$",
        min_length=1,
        max_length=80,
        description="Printable text, 1-80 characters, starting with a letter or digit: letters, digits, "
        "space and ._,:/()+@&=-",
    ),
]


ServerName = Annotated[
    str,
    Field(
        pattern=r"^[a-z][a-z0-9-]*$",
        max_length=MAX_SERVER_NAME,
        description="A server name such as gpu001, or a range gpu001-gpu064 (or gpu001-064).",
    ),
]
SwitchName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,31}$", description="A leaf's name.")]
_SUB_PORT = re.compile(r"[0-9]{1,4}:[0-9]{1,2}")


def _port(value: Any) -> int | str:
    """A port number or a "port:lane" sub-port; never true/false (YAML's true is not port 1)."""
    if type(value) is int and 1 <= value <= MAX_PORT:
        return value
    if isinstance(value, str) and _SUB_PORT.fullmatch(value):
        return value
    if isinstance(value, bool):
        what = str(value).lower()
    elif isinstance(value, int):
        what = str(value)
    else:
        what = repr(value[:20]) if isinstance(value, str) else kind_of(value)
    raise ValueError(f"{what} is not a port: write a port number 1-{MAX_PORT} (40) or a sub-port ('40:2')")


Port = Annotated[
    int | str,
    PlainValidator(
        _port,
        json_schema_input_type=Annotated[int, Field(ge=1, le=MAX_PORT)]
        | Annotated[str, Field(pattern=f"^{_SUB_PORT.pattern}$")],
    ),
]


class GpuSelection(BaseModel):
    """One way of naming GPUs: whole servers, single NICs of one server, or leaf ports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[ServerName] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_SERVERS,
        description="Whole servers (all NICs): names such as gpu001 or ranges gpu001-gpu064.",
    )
    server: ServerName | None = Field(
        default=None,
        description="One server, such as gpu001: lower-case letters, digits and '-'; with `nics`.",
    )
    nics: list[Annotated[StrictInt, Field(ge=0, le=MAX_NICS - 1)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NICS,
        description="NIC (= GPU) numbers of `server`, from 0.",
    )
    leaf: SwitchName | None = Field(
        default=None, description="A leaf, such as leaf01: lower-case letters, digits and '-'; with `ports`."
    )
    ports: list[Port] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PORT,
        description='GPU-facing ports of `leaf`: numbers (40) or sub-ports ("40:2").',
    )

    @model_validator(mode="after")
    def _one_form(self) -> GpuSelection:
        forms = [
            self.servers is not None,
            self.server is not None or self.nics is not None,
            self.leaf is not None or self.ports is not None,
        ]
        if sum(forms) != 1:
            raise ValueError("use exactly one of: servers | server+nics | leaf+ports")
        if (self.server is None) != (self.nics is None):
            raise ValueError("`server` and `nics` go together")
        if (self.leaf is None) != (self.ports is None):
            raise ValueError("`leaf` and `ports` go together")
        return self


class OverlayOverride(BaseModel):
    """Explicit numbers for a tenant migrated from elsewhere; normally derived from the id."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    l3vni: StrictInt | None = Field(default=None, ge=1, le=16_777_214)
    l2vni: StrictInt | None = Field(default=None, ge=1, le=16_777_214)
    vlan: StrictInt | None = Field(default=None, ge=2, le=4094)


class Tenant(BaseModel):
    """A customer (or a shared service) holding GPUs, isolated from every other tenant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: TenantName
    id: StrictInt = Field(ge=1, description="Stable id: every VNI, VLAN, RT and ACL number follows from it.")
    description: SafeText
    isolation: Literal["l3", "l2"] = Field(
        description="l3: VRF + L3VNI, each GPU port a routed /31; "
        "l2: VLAN + L2VNI with an anycast gateway in the tenant VRF (symmetric IRB)."
    )
    address_block: Network
    lossless: StrictBool = Field(default=True, description="RoCE lossless class (PFC/ECN) on its ports.")
    gpus: list[GpuSelection] = Field(min_length=1, max_length=MAX_GPU_SELECTIONS)
    shared_with: list[TenantName] = Field(
        default_factory=list,
        max_length=MAX_SHARED_WITH,
        description="Tenants this one may reach; counts only when the other side lists this one too.",
    )
    overlay: OverlayOverride = OverlayOverride()
