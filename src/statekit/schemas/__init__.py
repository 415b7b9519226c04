"""JSON Schemas shipped with statekit (read with `importlib.resources`)."""
