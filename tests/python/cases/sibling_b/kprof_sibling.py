NAME = "b"
