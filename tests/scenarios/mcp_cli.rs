//! `atelier mcp …` and `atelier run SERVER:TOOL` as a person would type them.
