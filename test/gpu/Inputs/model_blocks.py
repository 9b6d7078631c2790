"""Blocks of real models from the packages users have (transformers, timm),
built from a config with random weights (nothing is downloaded) and
PyTorch's attention (sdpa), as from_config builds them, for the
real-model corpus:

- python-bindings/tests/test_torch_real_models.py compiles each small one
  through fuser.torch.compile (forward and training) and runs its export on
  the CPU reference lowering against eager;
- bench/real_models.py compiles each (--build) and, on the GPU, checks and
  times it against eager and torch.compile.

MODELS names each block at each size. A block is wrapped so that forward
takes one tensor and returns one tensor. The convolutional blocks
(CONV_BLOCKS: timm's ConvNeXt and ResNet blocks, NCHW inputs) compile
partitioned: their convolutions run in PyTorch (cuDNN), the rest through
fuser (fuser.torch.compile's PartitionedModule, torch.compile(backend=
"fuser") on the GPU machine, from graph packages); `partitioned()` names
them.
"""

import torch
import torch.nn as nn


class _Block(nn.Module):
    """forward(x) = block(x, **kwargs), its first output where it returns a
    tuple (transformers' layers return (hidden_states, ...))."""

    def __init__(self, block, **kwargs):
        super().__init__()
        self.block = block
        self.kwargs = kwargs

    def forward(self, x):
        out = self.block(x, **self.kwargs)
        return out[0] if isinstance(out, (tuple, list)) else out


class _LlamaLayer(nn.Module):
    """A LLaMA decoder layer with its rotary embeddings (cos and sin of the
    positions, computed in forward as LlamaModel does)."""

    def __init__(self, config):
        super().__init__()
        from transformers.models.llama.modeling_llama import (
            LlamaDecoderLayer, LlamaRotaryEmbedding)
        self.rotary = LlamaRotaryEmbedding(config)
        self.layer = LlamaDecoderLayer(config, layer_idx=0)

    def forward(self, x):
        positions = torch.arange(x.shape[1], device=x.device)[None]
        cos, sin = self.rotary(x, positions)
        out = self.layer(x, position_embeddings=(cos, sin))
        return out[0] if isinstance(out, (tuple, list)) else out


def _bert_layer(d, h):
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer
    config = BertConfig(hidden_size=d, num_attention_heads=h,
                        intermediate_size=4 * d, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0,
                        attn_implementation="sdpa")
    return _Block(BertLayer(config))


def _gpt2_block(d, h):
    from transformers import GPT2Config
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block
    config = GPT2Config(n_embd=d, n_head=h, n_inner=4 * d, resid_pdrop=0.0,
                        attn_pdrop=0.0, embd_pdrop=0.0,
                        attn_implementation="sdpa")
    return _Block(GPT2Block(config, layer_idx=0))


def _llama_config(d, h):
    from transformers import LlamaConfig
    return LlamaConfig(hidden_size=d, intermediate_size=d * 11 // 4,
                       num_attention_heads=h, num_key_value_heads=h // 2,
                       max_position_embeddings=256,
                       attn_implementation="sdpa")


def _llama_mlp(d, h):
    from transformers.models.llama.modeling_llama import LlamaMLP
    return _Block(LlamaMLP(_llama_config(d, h)))


def _llama_layer(d, h):
    return _LlamaLayer(_llama_config(d, h))


def _vit_layer(d, h):
    from transformers import ViTConfig
    from transformers.models.vit.modeling_vit import ViTLayer
    config = ViTConfig(hidden_size=d, num_attention_heads=h,
                       intermediate_size=4 * d, hidden_dropout_prob=0.0,
                       attention_probs_dropout_prob=0.0,
                        attn_implementation="sdpa")
    return _Block(ViTLayer(config))


def _timm_vit_block(d, h):
    from timm.models.vision_transformer import Block
    return _Block(Block(d, h))


def _timm_mlp(d, h):
    from timm.layers import Mlp
    return _Block(Mlp(d, 4 * d))


def _timm_swiglu(d, h):
    from timm.layers import SwiGLUPacked
    return _Block(SwiGLUPacked(d, 8 * d // 3))


# name -> (builder(width, heads), tokens per sequence: a language model's
# or a ViT's 196 patches and the class token).
BLOCKS = {
    "bert_layer": (_bert_layer, 128),
    "gpt2_block": (_gpt2_block, 128),
    "llama_mlp": (_llama_mlp, 128),
    "llama_decoder_layer": (_llama_layer, 128),
    "vit_layer": (_vit_layer, 197),
    "timm_vit_block": (_timm_vit_block, 197),
    "timm_mlp": (_timm_mlp, 197),
    "timm_swiglu_packed": (_timm_swiglu, 197),
}

def _timm_convnext_block(c):
    from timm.models.convnext import ConvNeXtBlock
    return ConvNeXtBlock(c)


def _timm_resnet_block(c):
    from timm.models.resnet import BasicBlock
    return BasicBlock(c, c)


# name -> (builder(channels), channels and image side at the base size:
# ConvNeXt-T's and ResNet-18's first stage).
CONV_BLOCKS = {
    "timm_convnext_block": (_timm_convnext_block, 96, 56),
    "timm_resnet_basic_block": (_timm_resnet_block, 64, 56),
}
# (batch, channels, side), None for the block's own.
CONV_SIZES = {"small": (2, 16, 8), "base": (8, None, None)}

# Sizes: (batch, tokens or None for the block's own, width, heads). "small"
# runs on the CPU reference in a moment; "base" is BERT-base's and ViT-B's
# width at a batch of 8.
SIZES = {
    "small": (2, 16, 64, 4),
    "base": (8, None, 768, 12),
}

# "<block>_<size>" -> (block, size, example input shape)
MODELS = {
    f"{block}_{size}": (block, size,
                        (batch, tokens or BLOCKS[block][1], width))
    for size, (batch, tokens, width, _) in SIZES.items()
    for block in BLOCKS
}
MODELS.update({
    f"{block}_{size}": (block, size,
                        (batch, c or CONV_BLOCKS[block][1],
                         side or CONV_BLOCKS[block][2],
                         side or CONV_BLOCKS[block][2]))
    for size, (batch, c, side) in CONV_SIZES.items()
    for block in CONV_BLOCKS
})


def available():
    """Whether transformers and timm import here."""
    try:
        import timm  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        return False
    return True


def build(name, seed=0, device="cpu"):
    """MODELS[name]'s block in eval mode, its weights drawn after
    manual_seed(seed) (seed None: from the generator as it is)."""
    block, size, shape_ = MODELS[name]
    if seed is not None:
        torch.manual_seed(seed)
    if block in CONV_BLOCKS:
        return CONV_BLOCKS[block][0](shape_[1]).eval().to(device)
    _, _, width, heads = SIZES[size]
    return BLOCKS[block][0](width, heads).eval().to(device)


def shape(name):
    """The example input shape of MODELS[name]."""
    return MODELS[name][2]


def small():
    """The names of the small models that compile whole (the CPU tests')."""
    return sorted(n for n, (block, size, _) in MODELS.items()
                  if size == "small" and block not in CONV_BLOCKS)


def partitioned():
    """The names of the models whose convolutions stay in PyTorch."""
    return sorted(n for n, (block, _, _) in MODELS.items()
                  if block in CONV_BLOCKS)


def partitioned_small():
    """Those of partitioned() that the CPU tests run."""
    return [n for n in partitioned() if MODELS[n][1] == "small"]
