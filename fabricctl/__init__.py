"""fabricctl: declarative configuration for multi-tenant AI/GPU RoCEv2 fabrics."""

__version__ = "0.1.0"
