"""The lab twin of eos: its CLI dialect, show output, command reference, facts reader and config renderer."""
