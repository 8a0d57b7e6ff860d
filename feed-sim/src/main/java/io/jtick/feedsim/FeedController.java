package io.jtick.feedsim;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * {@code POST /api/feed/start} (400 on bad parameters, 409 while a feed runs), {@code POST /api/feed/stop},
 * {@code GET /api/feed}.
 */
@RestController
@RequestMapping("/api/feed")
class FeedController {
    private final FeedService feeds;

    FeedController(final FeedService feeds) {
        this.feeds = feeds;
    }

    @PostMapping("/start")
    Map<String, Object> start(@RequestBody(required = false) final StartRequest request) {
        return feeds.start(request == null ? StartRequest.defaults() : request);
    }

    @PostMapping("/stop")
    Map<String, Object> stop() {
        return feeds.stop();
    }

    @GetMapping
    Map<String, Object> status() {
        return feeds.status();
    }
}
