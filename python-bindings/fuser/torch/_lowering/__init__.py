"""The joint graph of training, lowered: FX rewrites (rewrites.py,
masks.py), the partitioner's policies (recompute.py), AOTAutograd's
partition into forward and backward graphs (partition.py) and the plan that
ties the two kernels together (plan.py); and the split of a dynamo graph
around the ops left to PyTorch (graph_split.py). Imports torch and fuser's
core only; torch-mlir's decomposition table is read inside partition.py."""
