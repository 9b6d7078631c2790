# Sourced by the scripts/build-*-sweep.sh scripts: builds one variant of an
# input, with its kernel configs (from the default fusion and configuration)
# edited by a sed expression, into <out>/<stem>.{ptx,manifest.json}.
#   build_config_variant <tools> <src> <out> <stem> <sed expression>
build_config_variant() {
  "$1/fuser-opt" "$2" --fuser-fusion-pipeline | sed "$5" |
    "$1/fuser-opt" --fuser-gpu-pipeline -o "$3/$4.gpu.mlir"
  "$1/fuser-translate" "$3/$4.gpu.mlir" --fuser-to-ptx -o "$3/$4.ptx"
  "$1/fuser-translate" "$3/$4.gpu.mlir" --fuser-to-manifest -o "$3/$4.manifest.json"
  rm "$3/$4.gpu.mlir"
}
