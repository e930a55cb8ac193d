from django.urls import path

from clipping.web import channels, sites

urlpatterns = [
    path("sites/", sites.site_index, name="site_index"),
    path("sites/preview/", sites.site_preview, name="site_preview"),
    path("sites/add/", sites.site_add, name="site_add"),
    path("sites/<int:pk>/", sites.site_detail, name="site_detail"),
    path("sites/<int:pk>/remove/", sites.site_remove, name="site_remove"),
    path("channels/add/", channels.channel_add, name="channel_add"),
    path("channels/routes/", channels.channel_routes, name="channel_routes"),
    path("channels/<int:pk>/test/", channels.channel_test, name="channel_test"),
    path("channels/<int:pk>/resume/", channels.channel_resume, name="channel_resume"),
    path("channels/<int:pk>/delete/", channels.channel_delete, name="channel_delete"),
]
