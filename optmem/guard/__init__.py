"""The write guard (docs/guard.md): ``text`` refuses characters and frame
tags in what is written, ``secrets`` finds credentials, ``unecho`` keeps a
refusal from repeating a credential it was handed."""
