"""take / take_along_axis gathers."""
