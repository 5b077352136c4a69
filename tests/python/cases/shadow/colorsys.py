raise ImportError("kernel directory's colorsys.py shadowed the standard library")
