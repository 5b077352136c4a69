raise ImportError("kernel directory's types.py shadowed the standard library")
