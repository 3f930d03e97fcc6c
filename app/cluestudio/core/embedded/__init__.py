"""The diagram an image file carries besides its pixels (issue 29): PlantUML writes its
source into every PNG it renders (a ``plantuml`` text chunk), draw.io its model into an
"editable PNG" (``mxfile``). Where image A carries one, the draft and the check can read
the author's own model instead of guessing it from the pixels. Untrusted input: sizes are
bounded and every error names the file. Qt-free."""
