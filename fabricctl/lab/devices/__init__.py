"""The lab twin of each NOS, one package each."""
