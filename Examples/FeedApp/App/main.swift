print("FeedApp")
