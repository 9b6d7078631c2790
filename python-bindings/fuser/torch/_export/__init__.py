"""A module's forward, exported: the binding of its arguments
(binding.py), torch.export of the functional wrapper (program.py), and
torch-mlir's import to linalg on tensors (mlir.py). Imports the package
layer (_package.py) and fuser's core, nothing that runs or compiles
kernels."""
