"""3D models: meshes and scenes converted with Assimp's command-line tool (``assimp export``).

Every output is one file: glTF is written with its buffers embedded as data URIs (glb is the binary
single-file form), OBJ without its .mtl (geometry only), FBX as ASCII FBX (the binary FBX Assimp 5.2
writes is one it cannot read back). Assimp follows an input's references (an OBJ's ``mtllib``, a
glTF's buffer ``uri``, ``../`` included) wherever they lead, so those references are defused first
(references.py) and the program runs confined: it sees its input alone in a directory of its own,
the system's /usr, and nothing else (confine.py, where bubblewrap runs).
May import the engines folder's shared modules, nothing of another family."""
