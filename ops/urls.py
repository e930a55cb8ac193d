from django.urls import path

from ops import views

app_name = "ops"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("progress.json", views.progress, name="progress"),
    path("mail/matches/<int:pk>/retry/", views.retry_match, name="retry_match"),
    path("mail/digests/<int:pk>/retry/", views.retry_digest, name="retry_digest"),
    path("mail/retry-all/", views.retry_all, name="retry_all"),
    path("mail/sweep/", views.sweep, name="sweep"),
]
