"""Configuration text as data, for every NOS alike: the line tree (`tree`), the neutral model a
config is read back into (`readback`), the remediation rules a platform declares (`rules`) and
the engine that turns running vs intended into commands (`diff`). Nothing here names a NOS; each
platform package brings its own rules and parser.
"""
