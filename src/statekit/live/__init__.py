"""Live machines: a machine an agent starts once and sends events to across turns.

`session` steps a machine held as a JSON record (pure: record in, record out); `service`
keeps records behind the gate's compare-and-set store interface, with handles and a TTL.
"""

from statekit.live.service import Compute, LiveMachines, in_process
from statekit.live.session import MAX_EVENTS, LiveRecord, MachineLoader

__all__ = ["MAX_EVENTS", "Compute", "LiveMachines", "LiveRecord", "MachineLoader", "in_process"]
