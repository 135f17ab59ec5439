"""A tenant as its owner's engineer writes it: tenants/<name>.yaml."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

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


class GpuSelection(BaseModel):
    """One way of naming GPUs: whole servers, single NICs of one server, or leaf ports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: list[str] | None = Field(
        default=None,
        min_length=1,
        description="Whole servers (all NICs): names such as gpu001 or ranges gpu001-gpu064.",
    )
    server: str | None = Field(default=None, description="One server, with `nics`.")
    nics: list[Annotated[int, Field(ge=0, le=15)]] | None = Field(
        default=None, min_length=1, description="NIC (= GPU) numbers of `server`, from 0."
    )
    leaf: str | None = Field(default=None, description="A leaf, with `ports`.")
    ports: list[Annotated[int, Field(ge=1, le=4096)] | str] | None = Field(
        default=None,
        min_length=1,
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

    l3vni: int | None = Field(default=None, ge=1, le=16_777_214)
    l2vni: int | None = Field(default=None, ge=1, le=16_777_214)
    vlan: int | None = Field(default=None, ge=2, le=4094)


class Tenant(BaseModel):
    """A customer (or a shared service) holding GPUs, isolated from every other tenant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: TenantName
    id: int = Field(ge=1, description="Stable id: every VNI, VLAN, RT and ACL number follows from it.")
    description: SafeText
    isolation: Literal["l3", "l2"] = Field(
        description="l3: VRF + L3VNI, each GPU port a routed /31; "
        "l2: VLAN + L2VNI with an anycast gateway in the tenant VRF (symmetric IRB)."
    )
    address_block: IPv4Network
    lossless: bool = Field(default=True, description="RoCE lossless class (PFC/ECN) on its ports.")
    gpus: list[GpuSelection] = Field(min_length=1)
    shared_with: list[TenantName] = Field(
        default_factory=list,
        description="Tenants this one may reach; counts only when the other side lists this one too.",
    )
    overlay: OverlayOverride = OverlayOverride()
