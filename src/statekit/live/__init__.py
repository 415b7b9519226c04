"""Live machines: a machine an agent starts once and sends events to across turns.

`session` steps a machine held as a JSON record (pure: record in, record out); `service`
keeps records behind the gate's compare-and-set store interface, with handles, owners,
quotas and a TTL; `bridge` runs the store calls and the sweep of expired records.
"""

from statekit.live.service import LOCAL_PRINCIPAL, Compute, LiveMachines, in_process
from statekit.live.session import MAX_EVENTS, LiveRecord, MachineLoader

__all__ = ["LOCAL_PRINCIPAL", "MAX_EVENTS", "Compute", "LiveMachines", "LiveRecord", "MachineLoader",
           "in_process"]
