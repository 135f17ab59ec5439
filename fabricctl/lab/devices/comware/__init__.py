"""The lab twin of comware: its CLI dialect, show output, command reference, facts reader and config renderer."""
