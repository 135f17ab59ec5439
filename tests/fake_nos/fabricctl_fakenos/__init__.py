"""TinyOS, a NOS of fabricctl's tests, installed as a distribution of its own: its product side
(platform/: switch model, port names, templates, config parser, remediation, push, health,
counters, identity, day 0) and its lab twin (lab/: command reference, CLI, show output, facts,
renderer, factory config), each found by fabricctl through its entry point.

TinyOS is declarative: its config is one YAML object tree, changed by `set <path> <value>` and
`delete <path>` in a configure session and committed under a confirm timer. Its documents are
this package: every line its templates emit is a line of lab/commands.yaml.
"""
