"""onnx.helper of the fake onnx."""
import json


class _Proto(dict):
    def SerializeToString(self):
        return b"fake-onnx:" + json.dumps(self, sort_keys=True).encode()


def make_tensor_value_info(name, elem_type, shape):
    return _Proto(name=name, elem_type=elem_type, shape=list(shape))


def make_node(op_type, inputs, outputs, **attrs):
    return _Proto(op_type=op_type, inputs=list(inputs), outputs=list(outputs))


def make_graph(nodes, name, inputs, outputs):
    return _Proto(nodes=list(nodes), name=name, inputs=list(inputs), outputs=list(outputs))


def make_opsetid(domain, version):
    return _Proto(domain=domain, version=version)


def make_model(graph, opset_imports=(), ir_version=8, **kw):
    return _Proto(graph=graph, opset_imports=list(opset_imports), ir_version=ir_version)
