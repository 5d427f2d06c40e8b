//! A toolbox as tools a rig agent takes (feature `rig`).
