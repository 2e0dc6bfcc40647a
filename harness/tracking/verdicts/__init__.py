"""What a sweep concluded: the leaderboard, the paired statistics, the champion, the ship front,
the gates, the self-check flags and each run's description."""
