"""The tidy frame as CSV, exactly the columns swarbench.results saves (so it loads back)."""


def render(view) -> str:
    return view.frame.to_csv(index=False)
