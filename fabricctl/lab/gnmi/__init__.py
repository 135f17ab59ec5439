"""The lab's gNMI targets: every switch serves gNMI next to SSH (and eAPI / NVUE REST).

`model.py` holds what a NOS's target is (its capabilities, which RPCs and modes it takes, the
paths it serves and their values, read from the same lab state its show commands print) and the
path logic; `server.py` is the gRPC server (grpcio, with the gNMI protobuf modules pygnmi ships),
imported only when a lab starts and the `gnmi` extra is installed.
"""
