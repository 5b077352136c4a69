NAME = "a"
