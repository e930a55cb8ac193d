"""The ground floor: settings readers and start-up checks, importing nothing of the project."""
